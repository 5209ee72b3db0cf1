"""What a SemEval file's name says about its domain and split: a pre-filled choice, never a guess between two."""

import pytest

from corpus.semeval import domain_and_split_from_name


@pytest.mark.parametrize(("name", "expected"), [
    ("Laptops_Test_Gold.xml", ("laptop", "test")),
    ("Restaurants_Train_v2.xml", ("restaurant", "train")),
    ("restaurants_small.xml", ("restaurant", None)),
    ("Restaurants_Trial.xml", ("restaurant", None)),
    ("C:\\data\\Laptop_Train_v2.xml", ("laptop", "train")),
    ("train/reviews.xml", (None, None)),  # a folder's name is not the file's
    ("laptop-vs-restaurant-test.xml", (None, "test")),  # names both domains: no guess
    ("reviews.xml", (None, None)),
])
def test_the_file_name_names_domain_and_split_only_when_it_names_one(name, expected):
    assert domain_and_split_from_name(name) == expected
